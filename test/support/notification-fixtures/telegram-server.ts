import { type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * The Telegram Bot API's `sendMessage` (https://core.telegram.org/bots/api): `POST
 * /bot<token>/sendMessage` with JSON `{chat_id, text, parse_mode, disable_notification,
 * link_preview_options}`; answers `{ok: true, result: Message}` or `{ok: false, error_code,
 * description}` with the same HTTP status: 401 Unauthorized (wrong token), 404 Not Found (unknown
 * method), 400 `Bad Request: chat not found`, 400 `Bad Request: can't parse entities: …` (HTML that
 * is not well-formed: only the documented tags, `<`, `>`, `&` escaped), 400 `message text is empty`.
 */
export function startTelegramServer(botToken: string, chatIds: string[]): Promise<FixtureServer> {
  let messageId = 100;
  return startFixtureServer((request) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.path);
    if (!match || match[1] !== botToken) return telegramError(401, 'Unauthorized');
    if (match[2] !== 'sendMessage' || request.method !== 'POST') return telegramError(404, 'Not Found');
    const body = request.json as { chat_id?: unknown; text?: unknown; parse_mode?: unknown } | undefined;
    if (!body || typeof body.text !== 'string' || body.text === '')
      return telegramError(400, 'Bad Request: message text is empty');
    if (!chatIds.includes(String(body.chat_id))) return telegramError(400, 'Bad Request: chat not found');
    if (body.text.length > 4096) return telegramError(400, 'Bad Request: message is too long');
    if (body.parse_mode === 'HTML' && !wellFormedHtml(body.text)) {
      return telegramError(400, "Bad Request: can't parse entities: Unsupported start tag at byte offset 0");
    }
    return {
      status: 200,
      body: {
        ok: true,
        result: {
          message_id: messageId++,
          chat: { id: body.chat_id },
          date: Math.floor(Date.now() / 1000),
          text: body.text,
        },
      },
    };
  });
}

/** Telegram's HTML mode: the documented tags only, and every other `<`, `>`, `&` escaped. */
function wellFormedHtml(text: string): boolean {
  const withoutTags = text.replace(/<\/?(b|strong|i|em|u|ins|s|strike|del|code|pre)>/g, '');
  const withoutEntities = withoutTags.replace(/&(lt|gt|amp|quot);/g, '');
  return !/[<>&]/.test(withoutEntities);
}

function telegramError(code: number, description: string) {
  return { status: code, body: { ok: false, error_code: code, description } };
}
