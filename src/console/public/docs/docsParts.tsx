/**
 * The building blocks of the docs' pages: the page's heading and lead, numbered steps (an ordered list whose items
 * carry an h2 each), code blocks with a copy button, code samples in tabs (curl, Node.js), and a callout. Inline code,
 * paragraphs and in-site links are the blog's (blog/parts.tsx).
 */
import { useId, useState, type ReactNode } from 'react';
import { Alert, Box, Button, Tab, Tabs, Typography } from '@mui/material';

export { C, P, To } from '../blog/parts';

/** PageHeading is a docs page's h1 with an optional eyebrow (e.g. "Quick start") and lead paragraph. */
export function PageHeading({ eyebrow, title, lead }: { eyebrow?: string; title: string; lead?: ReactNode }) {
  return (
    <Box component="header" sx={{ mb: 3 }}>
      {eyebrow && (
        <Typography sx={{ color: 'primary.dark', fontWeight: 600, fontSize: '0.875rem', letterSpacing: '0.04em', textTransform: 'uppercase', mb: 0.5 }}>
          {eyebrow}
        </Typography>
      )}
      <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '2rem', sm: '2.5rem' }, fontWeight: 500, mb: 1.5, overflowWrap: 'anywhere' }}>
        {title}
      </Typography>
      {lead && <Typography sx={{ fontSize: '1.125rem', color: 'text.secondary', maxWidth: '70ch' }}>{lead}</Typography>}
    </Box>
  );
}

/** Steps is the numbered list of a quick start's steps. */
export function Steps({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box component="ol" aria-label={label} sx={{ listStyle: 'none', m: 0, p: 0, counterReset: 'mw-step' }}>
      {children}
    </Box>
  );
}

/** Step is one step: its number in a circle beside an h2 `title`, then its content. */
export function Step({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box
      component="li"
      sx={{
        counterIncrement: 'mw-step',
        position: 'relative',
        pl: { xs: 0, sm: 6 },
        pb: 3,
        mb: 1,
        borderLeft: { xs: 0, sm: 2 },
        borderColor: { sm: 'divider' },
        ml: { xs: 0, sm: 2 },
        '&:last-of-type': { borderLeft: 0 },
      }}
    >
      <Box
        aria-hidden="true"
        sx={{
          position: { xs: 'static', sm: 'absolute' },
          left: -17,
          top: 0,
          width: 32,
          height: 32,
          borderRadius: '50%',
          bgcolor: 'primary.main',
          color: '#fff',
          display: 'inline-grid',
          placeItems: 'center',
          fontWeight: 700,
          mb: { xs: 1, sm: 0 },
          '&::before': { content: 'counter(mw-step)' },
        }}
      />
      <Typography variant="h5" component="h2" sx={{ fontWeight: 500, mb: 1.5, pt: { sm: 0.25 } }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/** Section is a titled part of a page (an h2). */
export function Section({ title, id, children }: { title: string; id?: string; children: ReactNode }) {
  return (
    <Box component="section" aria-labelledby={id} sx={{ mt: 4 }}>
      <Typography variant="h5" component="h2" id={id} sx={{ fontWeight: 500, mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/** copyText puts `text` on the clipboard; resolves false where the browser refuses (an insecure origin). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** CopyButton copies `text` and says so for two seconds. */
function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <Button size="small" onClick={() => void copy()} aria-label={`Copy ${what}`} sx={{ color: '#fff', minWidth: 0, textTransform: 'none' }}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}</span>
    </Button>
  );
}

/**
 * CodeBlock is a block of code labelled `label` (its language or file, shown above it and naming it for screen
 * readers) with a copy button; long lines scroll inside the block, never the page. It can be focused so keyboard users
 * can scroll it.
 */
export function CodeBlock({ label, children }: { label: string; children: string }) {
  return (
    <Box sx={{ mb: 2, borderRadius: 1, overflow: 'hidden', bgcolor: '#1e2330', maxWidth: '100%' }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', px: 2, py: 0.25, bgcolor: '#2b3242', color: '#e6e9ef' }}>
        <Typography component="span" sx={{ fontSize: '0.8125rem', fontWeight: 600 }}>
          {label}
        </Typography>
        <CopyButton text={children} what={label} />
      </Box>
      <Box
        component="pre"
        role="region"
        aria-label={label}
        tabIndex={0}
        sx={{
          m: 0,
          p: 2,
          overflowX: 'auto',
          color: '#e6e9ef',
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          fontSize: '0.8125rem',
          lineHeight: 1.6,
          '&:focus-visible': { outline: '2px solid #90caf9', outlineOffset: -2 },
        }}
      >
        <code>{children}</code>
      </Box>
    </Box>
  );
}

/** One sample of CodeTabs: the tab's label (e.g. "curl") and its code. */
export interface CodeSample {
  label: string;
  code: string;
}

/** CodeTabs shows the same call in several languages, one tab each (curl, Node.js); `what` names them for screen readers. */
export function CodeTabs({ what, samples }: { what: string; samples: readonly CodeSample[] }) {
  const [shown, setShown] = useState(0);
  const id = useId();
  return (
    <Box sx={{ mb: 2 }}>
      <Tabs
        value={shown}
        onChange={(_e, i: number) => setShown(i)}
        aria-label={`${what}: language`}
        variant="scrollable"
        scrollButtons={false}
        sx={{ minHeight: 36, '& .MuiTab-root': { minHeight: 36, textTransform: 'none', fontWeight: 600 } }}
      >
        {samples.map((s, i) => (
          <Tab key={s.label} label={s.label} id={`${id}-tab-${i}`} aria-controls={`${id}-panel-${i}`} />
        ))}
      </Tabs>
      {samples.map((s, i) => (
        <Box key={s.label} role="tabpanel" id={`${id}-panel-${i}`} aria-labelledby={`${id}-tab-${i}`} hidden={shown !== i}>
          {shown === i && <CodeBlock label={`${what} (${s.label})`}>{s.code}</CodeBlock>}
        </Box>
      ))}
    </Box>
  );
}

/** Note is a callout: 'info' for a tip, 'warning' for what stops people. */
export function Note({ severity = 'info', title, children }: { severity?: 'info' | 'warning' | 'success'; title?: string; children: ReactNode }) {
  return (
    <Alert severity={severity} sx={{ mb: 2, maxWidth: '80ch', '& .MuiAlert-message': { minWidth: 0 } }}>
      {title && <strong>{title} </strong>}
      {children}
    </Alert>
  );
}

/** UiPath names console screens and controls as the console shows them: "People → Sender Personas → Create Persona". */
export function UiPath({ parts }: { parts: readonly string[] }) {
  return (
    <Box component="strong" sx={{ fontWeight: 600 }}>
      {parts.join(' → ')}
    </Box>
  );
}
