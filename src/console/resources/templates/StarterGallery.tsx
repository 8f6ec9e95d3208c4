/**
 * The new-template gallery: a blank template (the drag-and-drop designer) or one of the starters
 * (starters.ts), each shown as a live thumbnail — the starter itself, rendered with sample values in a sandboxed frame
 * scaled to a third — with its name, type and purpose, and a button to start from it. Keyboard: every card's button
 * is a tab stop; the thumbnails are not.
 */
import { useEffect, useState } from 'react';
import { Alert, Box, Button, Card, CardActions, CardContent, Chip, Typography } from '@mui/material';
import { EmailThumbnail, THUMB } from './EmailThumbnail';
import { STARTERS, type Starter } from './starters';

/** A chosen starter with its HTML, or `blank`. */
export type StarterChoice = { blank: true } | { blank?: false; starter: Starter; html: string };

/** StarterGallery offers the blank template and the starters; `onChoose` gets the choice (with the starter's HTML). */
export function StarterGallery({ onChoose }: { onChoose: (choice: StarterChoice) => void }) {
  const [html, setHtml] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    for (const s of STARTERS) {
      fetch(s.url)
        .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${s.url}: ${r.status}`))))
        .then((text) => live && setHtml((prev) => ({ ...prev, [s.id]: text })))
        .catch((e: Error) => live && setError(e.message));
    }
    return () => {
      live = false;
    };
  }, []);

  return (
    <Box component="section" aria-labelledby="starter-gallery-heading">
      <Typography variant="h6" component="h2" id="starter-gallery-heading" sx={{ mb: 1 }}>
        Start from
      </Typography>
      {error && <Alert severity="warning" sx={{ mb: 2 }}>{`Couldn't load a starter (${error}); the others and the blank template still work.`}</Alert>}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fill, minmax(232px, 1fr))' }} role="list" aria-label="Starter templates">
        <Card variant="outlined" role="listitem" sx={{ display: 'flex', flexDirection: 'column' }}>
          <CardContent sx={{ flexGrow: 1 }}>
            <Box sx={{ height: THUMB.height * THUMB.scale, display: 'grid', placeItems: 'center', bgcolor: '#f4f4f7', borderRadius: 1, mb: 1 }}>
              <Typography color="text.secondary">Blank</Typography>
            </Box>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              Blank
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Design it yourself with the drag-and-drop designer.
            </Typography>
          </CardContent>
          <CardActions>
            <Button variant="contained" onClick={() => onChoose({ blank: true })}>
              Start blank
            </Button>
          </CardActions>
        </Card>
        {STARTERS.map((s) => (
          <Card key={s.id} variant="outlined" role="listitem" sx={{ display: 'flex', flexDirection: 'column' }} data-testid={`starter-${s.id}`}>
            <CardContent sx={{ flexGrow: 1 }}>
              <Box sx={{ mb: 1 }}>
                <EmailThumbnail title={`Thumbnail of the ${s.name} starter`} html={html[s.id]} />
              </Box>
              <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
                {s.name} <Chip size="small" label={s.type === 'TEMPLATE_MARKETING' ? 'Marketing' : 'Transactional'} sx={{ ml: 0.5, verticalAlign: 'middle' }} />
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {s.description}
              </Typography>
            </CardContent>
            <CardActions>
              <Button variant="outlined" disabled={html[s.id] === undefined} onClick={() => onChoose({ starter: s, html: html[s.id] })}>
                Use {s.name}
              </Button>
            </CardActions>
          </Card>
        ))}
      </Box>
    </Box>
  );
}
