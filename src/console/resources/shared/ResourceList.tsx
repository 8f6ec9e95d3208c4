/**
 * The generic list screen of a generated resource (STYLE.md item 3): columns, search fields, default sort, page size
 * and truncation come from its ResourceDefinition (the list operation's `x-resource`), so each resource's
 * `<Entity>List.tsx` is a thin wrapper.
 */
import { Fragment, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Datagrid, FunctionField, ListBase, Pagination, RecordContextProvider, useListContext, useNotify, type RaRecord } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Stack, Typography, useMediaQuery } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import type { ResourceDefinition } from '../../../../generated/resources.gen';
import type { Schema } from '../../data/apiTypes';
import { formatSendAt } from '../../../domain/sendTime';
import { campaignTypeLabel } from '../../../domain/campaigns';
import { ArchiveButton } from './ArchiveButton';
import { SearchBox } from './SearchBox';
import { formatDate } from '../../dates';

type Column = ResourceDefinition['list']['columns'][number];

/** truncate cuts `text` to `max` characters with an ellipsis (spec part 2 §9 name truncation). */
export function truncate(text: unknown, max?: number): string {
  const s = text === null || text === undefined ? '' : String(text);
  return max && s.length > max ? `${s.slice(0, max)}…` : s;
}

/** formatDate: a date column's day in the user's locale and zone (console/dates.ts). */
export { formatDate };

function renderCell(column: Column, record: RaRecord, truncateAt?: number): ReactNode {
  const value = record[column.source];
  switch (column.type) {
    case 'date':
      return formatDate(value);
    case 'boolean':
      return value ? <CheckIcon color="success" titleAccess="Yes" fontSize="small" /> : <CloseIcon color="error" titleAccess="No" fontSize="small" />;
    case 'count':
      return Array.isArray(value) ? value.length : 0;
    case 'sendAt':
      return formatSendAt(record as never);
    case 'campaignType':
      // A type reads on one or two lines, not four.
      return (
        <Box component="span" sx={{ display: 'block', minWidth: '10rem' }}>
          {campaignTypeLabel(String(value ?? ''))}
        </Box>
      );
    case 'audience': {
      // A blast's audience accounting: the excluded total, with the reasons in the tooltip. The rows are
      // react-admin records, so the column's value is read as the spec's type (an email blast's `audience`).
      const a = value as Schema<'scheduler', 'BlastAudience'> | null | undefined;
      if (!a) return '';
      const reasons = Object.entries(a.excluded).filter(([, n]) => n > 0);
      const total = reasons.reduce((sum, [, n]) => sum + n, 0);
      const detail = reasons.map(([why, n]) => `${n} ${why.replace(/_/g, ' ')}`).join(', ');
      return <span title={`${a.targeted} targeted${detail ? `; excluded: ${detail}` : ''}`}>{total ? `${total} (${detail})` : '0'}</span>;
    }
    default:
      return <span title={truncateAt && String(value ?? '').length > truncateAt ? String(value) : undefined}>{truncate(value, truncateAt)}</span>;
  }
}

/** The props of a generated resource list: its definition, wording, row actions and the optional overrides. */
export interface ResourceListProps {
  definition: ResourceDefinition;
  /** The singular entity for messages, e.g. 'contact'. */
  entity: string;
  /** The label of the per-row link to the edit route. */
  editLabel?: string;
  /** Put the edit and archive actions before the data columns (email blasts, spec part 2 §2). */
  actionsFirst?: boolean;
  /** Extra per-row actions, rendered between edit and archive. */
  rowActions?: ReactNode;
  /** Labels of the search fields in the selector. */
  searchLabels?: Record<string, string>;
  /** Controls shown above the list, inside its list context (e.g. a filter toggle). */
  toolbar?: ReactNode;
  /** The id the edit link opens (default the record's id). */
  editId?: (record: RaRecord) => string;
  /** A cell of a column rendered differently, or undefined for the column type's rendering. */
  cell?: (column: Column, record: RaRecord, truncateAt?: number) => ReactNode | undefined;
  /** More actions of the empty state, beside the definition's links (e.g. the send wizard for workflows). */
  emptyActions?: ReactNode;
  /** A record's own action in place of the edit link (e.g. a built-in segment's View), or undefined for the edit link. */
  editAction?: (record: RaRecord) => ReactNode | undefined;
}

/**
 * Links: the resource's create links. In an empty list (`primary`) the first is the one clear action (contained) and
 * the others are quieter; above a list they are all alike.
 */
function Links({ definition, primary = false }: { definition: ResourceDefinition; primary?: boolean }) {
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
      {(definition.list.links ?? []).map((l, i) => (
        <Button key={l.to} variant={primary && i === 0 ? 'contained' : 'outlined'} size="small" component={RouterLink} to={l.to}>
          {l.label}
        </Button>
      ))}
    </Stack>
  );
}

function ListContent({ definition, entity, editLabel = 'Edit', actionsFirst, rowActions, editId, cell, emptyActions, editAction }: ResourceListProps) {
  const { isPending, total, filterValues, error, data } = useListContext();
  // On a phone each record is a card (below), with its actions in it: nothing to reach by swiping sideways.
  const narrow = useMediaQuery('(max-width:599px)', { noSsr: true });
  const archiveOp = definition.operations.archive;
  const actionsOf = (record: RaRecord) => (
    <Stack direction="row" spacing={0.5} sx={{ whiteSpace: 'nowrap', flexWrap: 'wrap' }}>
      {editAction?.(record) ?? (
        <Button size="small" component={RouterLink} to={`${definition.route}/edit/${editId ? editId(record) : record.id}`}>
          {editLabel}
        </Button>
      )}
      {rowActions}
      {archiveOp && (!definition.archiveWhen || record[definition.archiveWhen]) && (
        <ArchiveButton
          resource={definition.name}
          entity={entity}
          label={definition.archiveLabel ?? 'Archive'}
          done={definition.archiveLabel ? `${definition.archiveLabel.toLowerCase()}d` : 'archived'}
          confirm={definition.archiveConfirm}
        />
      )}
    </Stack>
  );
  const actions = <FunctionField key="actions" label="Actions" sortable={false} render={actionsOf} />;
  const show = (column: (typeof definition.list.columns)[number], record: RaRecord) =>
    cell?.(column, record, definition.list.truncate[column.source]) ?? renderCell(column, record, definition.list.truncate[column.source]);
  const columns = definition.list.columns.map((column) => (
    <FunctionField
      key={column.source}
      source={column.source}
      label={column.label}
      sortable={column.type !== 'count'}
      render={(record: RaRecord) => show(column, record)}
    />
  ));

  if (error) {
    return (
      <Alert severity="error">
        Couldn't fetch {definition.label.toLowerCase()}: {(error as Error).message}
      </Alert>
    );
  }
  if (!isPending && total === 0 && !filterValues.q) {
    return (
      <Card variant="outlined">
        <CardContent>
          <Typography sx={{ mb: 2 }}>{definition.list.empty ?? `No ${definition.label.toLowerCase()} yet.`}</Typography>
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
            {emptyActions}
            <Links definition={definition} primary={!emptyActions} />
          </Stack>
        </CardContent>
      </Card>
    );
  }
  if (narrow) {
    // A phone: one card per record (its first column as the title, the others as label and value), no sideways scroll.
    const [title, ...rest] = definition.list.columns;
    return (
      <Box>
        <Stack spacing={1} component="ul" aria-label={definition.label} sx={{ listStyle: 'none', p: 0, m: 0 }}>
          {(data ?? []).map((record) => (
            // The row actions (Archive, …) read their record from the context, as in a table row.
            <RecordContextProvider key={String(record.id)} value={record}>
              <Card variant="outlined" component="li">
                <CardContent sx={{ pb: 1 }}>
                  <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                    {title ? show(title, record) : String(record.id)}
                  </Typography>
                  <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', columnGap: 1.5, rowGap: 0.25, m: 0 }}>
                    {rest.map((column) => (
                      <Fragment key={column.source}>
                        <Typography component="dt" variant="body2" color="text.secondary">
                          {column.label}
                        </Typography>
                        <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
                          {show(column, record)}
                        </Typography>
                      </Fragment>
                    ))}
                  </Box>
                  <Box sx={{ mt: 1 }}>{actionsOf(record)}</Box>
                </CardContent>
              </Card>
            </RecordContextProvider>
          ))}
        </Stack>
        {!isPending && total === 0 && <Typography sx={{ p: 2 }}>No {definition.label.toLowerCase()} match the search.</Typography>}
        <Pagination rowsPerPageOptions={[definition.list.pageSize]} />
      </Box>
    );
  }
  return (
    // Cells 8 px apart, not MUI's 16: Campaigns' ten columns fit a 1440 px laptop beside the navigation.
    <Card variant="outlined" sx={{ overflowX: 'auto', '& .MuiTableCell-root': { px: 1 } }}>
      <Datagrid bulkActionButtons={false} rowClick={false} empty={<Typography sx={{ p: 2 }}>No {definition.label.toLowerCase()} match the search.</Typography>}>
        {actionsFirst ? [actions, ...columns] : [...columns, actions]}
      </Datagrid>
      <Pagination rowsPerPageOptions={[definition.list.pageSize]} />
    </Card>
  );
}

/** ResourceList renders the list of one generated resource at its route. */
export function ResourceList(props: ResourceListProps) {
  const { definition, searchLabels, toolbar } = props;
  const notify = useNotify();
  return (
    <ListBase
      resource={definition.name}
      storeKey={false}
      perPage={definition.list.pageSize}
      sort={definition.list.defaultSort}
      queryOptions={{
        onError: (error: Error) => notify(`Couldn't fetch ${definition.label.toLowerCase()}: ${error.message}`, { type: 'error' }),
      }}
    >
      <Box>
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
          <Typography variant="h5" component="h1">
            {definition.label}
          </Typography>
          <Links definition={definition} />
        </Stack>
        {definition.list.searchFields.length > 0 && <SearchBox fields={definition.list.searchFields} labels={searchLabels} />}
        {toolbar}
        <ListContent {...props} />
      </Box>
    </ListBase>
  );
}
