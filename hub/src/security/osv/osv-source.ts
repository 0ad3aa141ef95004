import { unzipSync } from 'fflate';
import { errorMessage } from '../../../../shared/error-message';

/**
 * Reads the entries of an OSV export: a per-ecosystem `all.zip` (one JSON document per advisory),
 * a JSON document (one advisory or an array of them) or JSON Lines. Calls `entry` with each parsed
 * value and `bad` with each part that is not JSON; never throws on content.
 */

/** One advisory document larger than this is not an advisory. */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
/** The whole archive, decompressed: the largest ecosystem export (Debian) is a few hundred MB. */
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

export interface SourceReader {
  entry(value: unknown): void;
  bad(reason: string): void;
}

export function readOsvExport(bytes: Uint8Array, reader: SourceReader): void {
  if (ZIP_MAGIC.every((byte, index) => bytes[index] === byte)) readZip(bytes, reader);
  else readText(new TextDecoder().decode(bytes), reader);
}

function readZip(bytes: Uint8Array, reader: SourceReader): void {
  let total = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      // Sizes from the central directory, checked before anything is inflated: a zip bomb is refused, not expanded.
      filter: (file) => {
        if (!file.name.endsWith('.json')) return false;
        if (file.originalSize > MAX_ENTRY_BYTES) {
          reader.bad(`${file.name.slice(0, 200)}: larger than ${MAX_ENTRY_BYTES} bytes`);
          return false;
        }
        total += file.originalSize;
        return total <= MAX_ARCHIVE_BYTES;
      },
    });
  } catch (error) {
    reader.bad(`not a readable zip archive: ${errorMessage(error)}`);
    return;
  }
  const decoder = new TextDecoder();
  for (const [name, content] of Object.entries(files)) {
    try {
      reader.entry(JSON.parse(decoder.decode(content)));
    } catch {
      reader.bad(`${name.slice(0, 200)}: not JSON`);
    }
  }
}

function readText(text: string, reader: SourceReader): void {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (Array.isArray(value)) for (const entry of value) reader.entry(entry);
      else reader.entry(value);
      return;
    } catch {
      // Not one document: JSON Lines (whose first line is also `{`).
    }
  }
  const lines = trimmed.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      reader.entry(JSON.parse(line));
    } catch {
      reader.bad(`line ${index + 1}: not JSON`);
    }
  });
}
