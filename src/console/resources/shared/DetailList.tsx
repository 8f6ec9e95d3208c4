/** DetailList: label and value pairs as a definition list of two columns, the values wrapping anywhere so a phone never scrolls sideways. */
import { Fragment, type ReactNode } from 'react';
import { Box, Typography } from '@mui/material';

/** DetailList renders `items` ([label, value], labels unique) as a <dl>. */
export function DetailList({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', columnGap: 2, rowGap: 0.5, my: 1, alignItems: 'baseline' }}>
      {items.map(([label, value]) => (
        <Fragment key={label}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
            {value}
          </Typography>
        </Fragment>
      ))}
    </Box>
  );
}
