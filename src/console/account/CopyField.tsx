/** A read-only value with a copy button (keys, endpoints and the sample on the account screens). */
import { useState } from 'react';
import { IconButton, InputAdornment, TextField, Tooltip } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';

/** CopyField shows `value` read-only; the button copies it to the clipboard and says so. */
export function CopyField({ id, label, value, multiline }: { id: string; label: string; value: string; multiline?: boolean }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <TextField
      id={id}
      label={label}
      value={value}
      fullWidth
      multiline={multiline}
      slotProps={{
        htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={copied ? 'Copied' : `Copy ${label.toLowerCase()}`}>
                <IconButton aria-label={`Copy ${label.toLowerCase()}`} onClick={() => void copy()} edge="end">
                  <ContentCopyIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
