import { ApiCallError } from '../api';

/** A failed call as the API said it: the closed code and its readable message. */
export function ErrorLine({ error }: { error: Error | null }) {
  if (error === null) return null;
  return (
    <p role="alert" className="error">
      {error instanceof ApiCallError ? <><code>{error.code}</code>: {error.message}</> : error.message}
    </p>
  );
}
