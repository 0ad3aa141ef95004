/** An error in plain words (api.ts writes them), announced to screen readers when it appears. */
export function ErrorText({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
