/** A run's status as a word with a colour (the word alone carries the meaning, for readers who cannot see colour). */
export function StatusBadge({ status }: { status: string | null }) {
  const value = status ?? 'unknown';
  return <span className={`badge status-${value}`}>{value.replace('_', ' ')}</span>;
}

export const formatMs = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
};

export const formatTime = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');
