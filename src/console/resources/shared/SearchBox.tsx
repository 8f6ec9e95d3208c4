/**
 * The list search box (spec part 1 §5 Search fields, §9; part 2 §5 Search): the text is applied 1000 ms after the
 * last keystroke, on the field picked in the selector (the resource's search fields).
 */
import { useEffect, useRef, useState } from 'react';
import { useListContext } from 'react-admin';
import { MenuItem, Stack, TextField } from '@mui/material';

export const SEARCH_DEBOUNCE_MS = 1000;

/** SearchBox edits the list filter's `q` (debounced) and `field`; `idPrefix` keeps ids unique when a page has two lists. */
export function SearchBox({ fields, labels = {}, idPrefix = 'list' }: { fields: string[]; labels?: Record<string, string>; idPrefix?: string }) {
  const { filterValues, setFilters } = useListContext();
  const [text, setText] = useState<string>(String(filterValues.q ?? ''));
  const field = String(filterValues.field ?? fields[0] ?? '');
  const latest = useRef(filterValues);
  latest.current = filterValues;

  useEffect(() => {
    if (text === String(latest.current.q ?? '')) return;
    const timer = setTimeout(() => setFilters({ ...latest.current, q: text || undefined }, {}, false), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, setFilters]);

  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ mb: 1 }}>
      <TextField
        id={`${idPrefix}-search`}
        label="Search"
        size="small"
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        sx={{ minWidth: 260 }}
      />
      {fields.length > 1 && (
        <TextField
          id={`${idPrefix}-search-field`}
          select
          label="Field"
          size="small"
          value={field}
          onChange={(e) => setFilters({ ...filterValues, field: e.target.value }, {}, false)}
          sx={{ minWidth: 160 }}
        >
          {fields.map((f) => (
            <MenuItem key={f} value={f}>
              {labels[f] ?? f}
            </MenuItem>
          ))}
        </TextField>
      )}
    </Stack>
  );
}
