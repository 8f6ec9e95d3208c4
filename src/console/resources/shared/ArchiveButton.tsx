/**
 * The per-row archive (or disable) action with a confirmation dialog (spec part 2 §2, §8): toasts
 * 'Successfully archived {entity}' or "Couldn't archive {entity}: ...".
 */
import { useState } from 'react';
import { useDelete, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';

export interface ArchiveButtonProps {
  resource: string;
  /** The entity in messages, e.g. 'contact'. */
  entity: string;
  /** Button text: 'Archive' or 'Disable'. */
  label?: string;
  /** The dialog text; it must say when the action cannot be undone. */
  confirm?: string;
  /** Past tense for the success toast, e.g. 'archived' or 'disabled'. */
  done?: string;
}

/** ArchiveButton asks for confirmation, then deletes the row's record through the dataProvider. */
export function ArchiveButton({ resource, entity, label = 'Archive', confirm, done = 'archived' }: ArchiveButtonProps) {
  const record = useRecordContext();
  const [open, setOpen] = useState(false);
  const [deleteOne, { isPending }] = useDelete();
  const notify = useNotify();
  const refresh = useRefresh();
  if (!record) return null;
  const verb = label.toLowerCase();

  const run = () =>
    deleteOne(
      resource,
      { id: record.id, previousData: record },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          setOpen(false);
          notify(`Successfully ${done} ${entity}`, { type: 'success' });
          refresh();
        },
        onError: (error) => {
          setOpen(false);
          notify(`Couldn't ${verb} ${entity}: ${(error as Error)?.message ?? error}`, { type: 'error' });
        },
      },
    );

  return (
    <>
      <Button size="small" color="error" onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Dialog open={open} onClose={() => !isPending && setOpen(false)} aria-labelledby="archive-dialog-title">
        <DialogTitle id="archive-dialog-title">
          {label} {entity}?
        </DialogTitle>
        <DialogContent>
          <DialogContentText>{confirm ?? `${label} this ${entity}? This cannot be undone.`}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={isPending}>
            Cancel
          </Button>
          <Button color="error" variant="contained" onClick={run} disabled={isPending}>
            Confirm
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
