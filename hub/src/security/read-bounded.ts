/** The body, refused once it passes `max` bytes (a Content-Length above it is refused before reading). */
export async function readBounded(response: Response, max: number): Promise<Uint8Array> {
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  if (announced > max) throw new Error(`the download announces ${announced} bytes, above ${max}`);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new Error(`the download passed ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
