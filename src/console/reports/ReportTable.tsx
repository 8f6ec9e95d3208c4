/**
 * A small read-only table for the report sections (spec part 1 §2 Insights and reports): one row per report row, the
 * columns given by the caller, named for screen readers by the section title.
 */
import type { ReactNode } from 'react';
import { Link, Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import { truncate } from '../resources/shared/ResourceList';

/**
 * One column: its header, how a row renders in it, whether it holds a number (right-aligned), and whether its words
 * are kept whole (a date, "Person": never broken into "Pers/on" beside a long address; other text columns may break
 * a long word, such as an address, to fit).
 */
export interface ReportColumn<T> {
  label: string;
  render: (row: T) => ReactNode;
  numeric?: boolean;
  keepWords?: boolean;
}

/** ReportTable renders `rows` under `columns`, labelled `label`. */
export function ReportTable<T>({ label, columns, rows }: { label: string; columns: ReportColumn<T>[]; rows: T[] }) {
  return (
    <TableContainer>
      <Table size="small" aria-label={label}>
        <TableHead>
          <TableRow>
            {columns.map((c) => (
              <TableCell key={c.label} align={c.numeric ? 'right' : 'left'}>
                {c.label}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row, i) => (
            <TableRow key={i}>
              {columns.map((c) => (
                <TableCell key={c.label} align={c.numeric ? 'right' : 'left'} sx={{ wordBreak: c.numeric || c.keepWords ? undefined : 'break-word' }}>
                  {c.render(row)}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** LINK_MAX is where a link's text is cut in report tables (its full URL stays in the title and the href). */
export const LINK_MAX = 60;

/** ReportLink shows a clicked URL, cut at LINK_MAX characters, opening in a new tab. */
export function ReportLink({ url }: { url: string }) {
  const safe = /^https?:\/\//i.test(url);
  const text = truncate(url, LINK_MAX);
  if (!safe) return <span title={url}>{text}</span>;
  return (
    <Link href={url} target="_blank" rel="noopener noreferrer" title={url}>
      {text}
    </Link>
  );
}
