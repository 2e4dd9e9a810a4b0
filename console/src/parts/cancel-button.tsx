import type { Api, RunCancellationView } from '../api';
import { useAction } from '../use-action';
import { ErrorLine } from './error-line';

/**
 * Cancels a running or waiting run (issue 43 §6) through POST /api/runs/{id}/cancel: its sub-questions and model
 * calls stop, and it ends CANCELLED. The page reads the run again when the server has answered.
 */
export function CancelButton({ api, workflowId, onCancelled }: { api: Api; workflowId: string; onCancelled: (result: RunCancellationView) => void }) {
  const { busy, error, run } = useAction();
  return (
    <div className="cancel-run">
      <button type="button" className="danger" disabled={busy} onClick={() => void run(async () => onCancelled(await api.cancel(workflowId)))}>
        {busy ? 'Cancelling…' : 'Cancel run'}
      </button>
      <ErrorLine error={error} />
    </div>
  );
}
