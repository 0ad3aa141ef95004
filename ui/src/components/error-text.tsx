/** An error in plain words (api.ts writes them), announced to screen readers when it appears. */
export function ErrorText({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** What an action did, in plain words (saved, added…), announced politely; beside ErrorText, which says what failed. */
export function NoticeText({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p role="status" class="notice">
      {message}
    </p>
  );
}
