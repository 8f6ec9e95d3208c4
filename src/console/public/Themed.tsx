/**
 * The public pages' MUI theme, applied around each lazily loaded public page: the brand colour (brand.ts), the site's
 * system fonts, rounder corners and buttons in sentence case, so MUI pages match the plain-CSS frame (site.css).
 */
import type { ReactNode } from 'react';
import { ThemeProvider, createTheme } from '@mui/material';
import { BRAND_COLOR, BRAND_COLOR_DARK, INK } from './brand';

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'Liberation Sans', sans-serif";

const publicTheme = createTheme({
  palette: {
    primary: { main: BRAND_COLOR, dark: BRAND_COLOR_DARK },
    text: { primary: INK, secondary: '#5b5670' },
    divider: '#e7e4f0',
  },
  shape: { borderRadius: 10 },
  typography: {
    fontFamily: FONT,
    h3: { fontWeight: 800, letterSpacing: '-0.02em' },
    h4: { fontWeight: 800, letterSpacing: '-0.02em' },
    h5: { fontWeight: 700 },
    h6: { fontWeight: 700 },
    button: { textTransform: 'none', fontWeight: 600, fontSize: '1rem' },
  },
  components: {
    MuiButton: { defaultProps: { disableElevation: true } },
    MuiCard: { styleOverrides: { root: { borderColor: '#e7e4f0' } } },
  },
});

/** Themed gives its children the public site's theme. */
export function Themed({ children }: { children: ReactNode }) {
  return <ThemeProvider theme={publicTheme}>{children}</ThemeProvider>;
}
