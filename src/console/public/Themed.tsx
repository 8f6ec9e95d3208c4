/** The public pages' MUI theme (primary #1565c0), applied around each lazily loaded public page. */
import type { ReactNode } from 'react';
import { ThemeProvider, createTheme } from '@mui/material';

const publicTheme = createTheme({ palette: { primary: { main: '#1565c0' } } });

/** Themed gives its children the public site's theme. */
export function Themed({ children }: { children: ReactNode }) {
  return <ThemeProvider theme={publicTheme}>{children}</ThemeProvider>;
}
