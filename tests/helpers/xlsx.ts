/**
 * writeXlsx writes rows to an .xlsx file with openpyxl (Debian's python3-openpyxl; scripts/ensure-test-tools.sh
 * installs it), so import tests read workbooks made by another program, not by the reader under test. Cells: strings,
 * numbers, booleans, null, or {date: 'YYYY-MM-DD'} for a real date cell. Throws when python or openpyxl fails.
 */
import { execFileSync } from 'node:child_process';

export type XlsxCell = string | number | boolean | null | { date: string };

const SCRIPT = `
import json, sys, datetime
from openpyxl import Workbook
rows = json.load(sys.stdin)
wb = Workbook()
ws = wb.active
ws.title = 'Contacts'
for row in rows:
    ws.append([datetime.datetime.strptime(c['date'], '%Y-%m-%d') if isinstance(c, dict) else c for c in row])
wb.save(sys.argv[1])
`;

export function writeXlsx(file: string, rows: XlsxCell[][]): void {
  execFileSync('/usr/bin/python3', ['-c', SCRIPT, file], { input: JSON.stringify(rows) });
}
