/**
 * The one small interface every email designer of the template editor implements (spec part 2 §2
 * Templates "a drag-and-drop email designer", §4 Template editor, §5 "Editor readiness: 40 tries at 200 ms").
 *
 * Two implementations: Unlayer's (react-email-editor, designer version 1.157.0), which loads from Unlayer's servers,
 * and a self-hosted GrapesJS designer (grapesjs-preset-newsletter) that needs no network, used when Unlayer cannot
 * load. A template's saved `json` records which one made its design ({designer, design}), so it reopens in the same
 * one; {designer: 'html'} marks HTML written or imported as code.
 */
import type { Schema } from '../../../data/apiTypes';

/** The designers a design can come from. */
export type DesignerKind = 'unlayer' | 'grapesjs';

/**
 * The template's saved `json` (openapi/template.yaml TemplateInput.json): the spec types its `designer` tag; the
 * version and the design document are free-form there (described in its prose), so they are stated here.
 */
export interface SavedDesign {
  designer: NonNullable<NonNullable<Schema<'template', 'TemplateInput'>['json']>['designer']>;
  /** The designer's version, for Unlayer designs ('1.157.0'). */
  version?: string;
  /** The designer's own design document (Unlayer design JSON or GrapesJS project data). */
  design?: unknown;
}

/** A mounted designer, handed to the editor once it is ready. */
export interface EmailDesigner {
  readonly kind: DesignerKind;
  /** exportHtml returns the email as a full HTML document (CSS inlined) and the design to save with it. */
  exportHtml(): Promise<{ html: string; design: SavedDesign }>;
}

/** The props every designer component takes. */
export interface DesignerProps {
  /** The design to load once at start (the designer's own document), or undefined to start from `html`. */
  design?: unknown;
  /** The HTML to start from when there is no design (GrapesJS imports it; Unlayer ignores it). */
  html: string;
  /** Called once, when the designer is ready to use. */
  onReady(designer: EmailDesigner): void;
  /** Called on every change of the design. */
  onChange(): void;
  /** Called at most once, when the designer cannot load; `reason` says why, in words a user can act on. */
  onUnavailable?(reason: string): void;
  /** Uploads one image and resolves its public URL (spec part 2 §7 image upload); rejects with a message. */
  uploadImage(file: File): Promise<string>;
}

/** Unlayer's designer version (spec part 2 §10 constants). */
export const UNLAYER_VERSION = '1.157.0';

/** Editor readiness (spec part 2 §5): how many checks, how far apart (ms). */
export const READINESS = { tries: 40, intervalMs: 200 } as const;

/**
 * savedDesignOf reads a template's `json` into a SavedDesign, or undefined when it records none (templates saved
 * through the API, or before designers were recorded).
 */
export function savedDesignOf(json: unknown): SavedDesign | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const d = (json as { designer?: unknown }).designer;
  return d === 'unlayer' || d === 'grapesjs' || d === 'html' ? (json as SavedDesign) : undefined;
}

/**
 * emailDocument wraps designer output in a full HTML document with a white background; output that already is a
 * document is returned as it is.
 */
export function emailDocument(body: string, title = ''): string {
  if (/<html[\s>]/i.test(body)) return body;
  const inner = /^\s*<body[\s>]/i.test(body) ? body : `<body style="margin:0;padding:0;background-color:#ffffff;">${body}</body>`;
  return `<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n</head>\n${inner}\n</html>\n`;
}

/** The default content of a new template in the GrapesJS designer: a white table holding a greeting and the unsubscribe-link block (spec part 2 §4). */
export const DEFAULT_DESIGN_HTML = `<table style="width:100%;background-color:#ffffff;" bgcolor="#ffffff" width="100%">
  <tr>
    <td style="padding:24px;font-family:Arial, sans-serif;color:#222222;">
      <p>Hi {{user.first_name}},</p>
      <p>Write your email here.</p>
      <p>{{sender_persona.first_name}}</p>
      <p style="font-size:12px;color:#777777;"><a href="{{unsubscribe_link}}">Unsubscribe</a></p>
    </td>
  </tr>
</table>`;

/** The default design of a new template in Unlayer: a white body with one text block holding the unsubscribe link (spec part 2 §4). */
export const DEFAULT_UNLAYER_DESIGN = {
  counters: { u_row: 1, u_column: 1, u_content_text: 1 },
  body: {
    id: 'body',
    rows: [
      {
        id: 'row-1',
        cells: [1],
        columns: [
          {
            id: 'column-1',
            contents: [
              {
                id: 'text-1',
                type: 'text',
                values: {
                  containerPadding: '10px',
                  textAlign: 'center',
                  lineHeight: '140%',
                  text: '<p style="font-size: 12px;"><a href="{{unsubscribe_link}}" target="_blank">Unsubscribe</a></p>',
                },
              },
            ],
            values: {},
          },
        ],
        values: { backgroundColor: '', columnsBackgroundColor: '', padding: '0px' },
      },
    ],
    values: {
      backgroundColor: '#ffffff',
      contentWidth: '600px',
      contentAlign: 'center',
      fontFamily: { label: 'Arial', value: 'arial,helvetica,sans-serif' },
      textColor: '#000000',
    },
  },
  schemaVersion: 16,
};
