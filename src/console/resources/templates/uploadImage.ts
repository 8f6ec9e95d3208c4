/**
 * Template image upload (spec part 2 §7 Templates): GET {template}/templates/images/upload_url?filename&type answers a
 * URL; the file is PUT to it with its content type (retries 2/250 ms); a 2xx is success and the image is served from
 * the public /template-images/ path. The size and type are checked here first so a wrong file fails at once.
 */
import { callOperation } from '../../data/gateway';
import { withRetry } from '../../retry';
import { checkImageUpload } from '../../../domain/uploads';

/** An upload failure whose message is what the user is shown (the status text, and the server's reason when given). */
export class ImageUploadError extends Error {}

/**
 * uploadTemplateImage uploads one image and resolves its public URL. Rejects with ImageUploadError: the local check's
 * message, the upload URL's error, or for a non-2xx PUT its status text (plus the server's reason).
 */
export async function uploadTemplateImage(file: File): Promise<string> {
  const problem = checkImageUpload(file.name, file.type, file.size);
  if (problem) throw new ImageUploadError(problem);
  let target: string;
  try {
    target = (await callOperation('getTemplateImageUploadUrl', { query: { filename: file.name, type: file.type } })).data;
  } catch (err) {
    throw new ImageUploadError((err as Error).message);
  }
  const response = await withRetry(
    async () => {
      const res = await fetch(target, { method: 'PUT', headers: { 'Content-Type': file.type }, body: file });
      if (res.status >= 500) throw Object.assign(new Error(res.statusText), { status: res.status });
      return res;
    },
    { retries: 2, delayMs: 250 },
  ).catch((err: Error & { status?: number }) => {
    throw new ImageUploadError(err.status ? err.message || `HTTP ${err.status}` : `Network error: ${err.message}`);
  });
  // Not a gateway operation: the pre-signed PUT target has no schema in openapi/ (getTemplateImageUploadUrl's description
  // gives its answer, {data: {url}} or {errors}), so this one answer shape is stated here and read defensively.
  const body = (await response.json().catch(() => ({}))) as { data?: { url?: string }; errors?: string[] };
  if (!response.ok || !body.data?.url) {
    const reason = body.errors?.join('; ');
    throw new ImageUploadError([response.statusText || `HTTP ${response.status}`, reason].filter(Boolean).join(': '));
  }
  return body.data.url;
}
