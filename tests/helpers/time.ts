/** wallClockUtc returns the UTC wall-clock time `offsetMinutes` from now as YYYY-MM-DDTHH:mm (a blast's send_at). */
export function wallClockUtc(offsetMinutes = 0): string {
  return new Date(Date.now() + offsetMinutes * 60_000).toISOString().slice(0, 16);
}
