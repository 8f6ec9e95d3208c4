/**
 * A template's thumbnail: the email itself, rendered with the sample contact
 * (sampleRender.ts) in a sandboxed frame scaled to a third — in the template gallery and under the send wizard's
 * template pick list.
 */
import { Box } from '@mui/material';
import { VIEWER_SANDBOX } from '../../pages/EmailViewer';
import { renderSample } from './sampleRender';

/** A thumbnail's size: a 600 × 720 px email at a third. */
export const THUMB = { width: 600, height: 720, scale: 1 / 3 };

/** EmailThumbnail draws `html` (rendered with the sample contact) at a third of its size; nothing in it runs or takes focus. */
export function EmailThumbnail({ title, html }: { title: string; html?: string }) {
  return (
    <Box sx={{ width: THUMB.width * THUMB.scale, height: THUMB.height * THUMB.scale, overflow: 'hidden', mx: 'auto', bgcolor: '#f4f4f7', borderRadius: 1 }}>
      {html !== undefined && (
        <iframe
          title={title}
          sandbox={VIEWER_SANDBOX}
          srcDoc={renderSample(html)}
          tabIndex={-1}
          loading="lazy"
          style={{
            width: THUMB.width,
            height: THUMB.height,
            border: 0,
            transform: `scale(${THUMB.scale})`,
            transformOrigin: '0 0',
            pointerEvents: 'none',
            background: '#fff',
          }}
        />
      )}
    </Box>
  );
}
