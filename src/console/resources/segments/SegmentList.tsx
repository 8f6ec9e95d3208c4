/**
 * The segments list at /people/segments (spec part 2 §2 Segments): generated from the listSegments x-resource. The
 * built-in sunset segment (Segment.built_in) is marked Built-in, says why it is not edited by hand, and opens with
 * View instead of Edit.
 */
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import type { RaRecord } from 'react-admin';
import { Box, Button, Chip, Typography } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList, truncate } from '../shared/ResourceList';

/** Why a built-in segment's name and members are not edited here. */
export const BUILT_IN_REASON = 'Kept by the sunset policy (Account → Audience health): its name and members change with the policy, not by hand.';

/** isBuiltIn is true for a segment the product keeps (its name and members cannot be edited). */
export function isBuiltIn(record: object | undefined): boolean {
  const builtIn = (record as { built_in?: unknown } | undefined)?.built_in;
  return typeof builtIn === 'string' && builtIn !== '';
}

/** SegmentList lists segments (name, contacts, added) newest first, 10 a page, with search, edit and the create links. */
export function SegmentList() {
  const definition = resourcesByName.segments;
  const nameCell = (record: RaRecord, truncateAt?: number): ReactNode => (
    <Box component="span" sx={{ display: 'block' }}>
      {truncate(record.name, truncateAt)}
      <Chip size="small" label="Built-in" variant="outlined" sx={{ ml: 1 }} />
      <Typography component="span" variant="body2" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
        {BUILT_IN_REASON}
      </Typography>
    </Box>
  );
  return (
    <ResourceList
      definition={definition}
      entity="segment"
      searchLabels={{ name: 'Name' }}
      cell={(column, record, truncateAt) => (column.source === 'name' && isBuiltIn(record) ? nameCell(record, truncateAt) : undefined)}
      editAction={(record) =>
        isBuiltIn(record) ? (
          <Button size="small" component={RouterLink} to={`${definition.route}/edit/${record.id}`} aria-label={`View ${record.name}`}>
            View
          </Button>
        ) : undefined
      }
    />
  );
}
