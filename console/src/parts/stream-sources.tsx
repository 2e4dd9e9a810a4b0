import type { StreamSource } from '../api';
import { shownPage } from '../../../core/schemas/page-number';

/** The evidence an answer being written cites as [n], in one line: file and page, the passage's start on hover. */
export function StreamSources({ sources }: { sources: StreamSource[] }) {
  if (sources.length === 0) return null;
  return (
    <ol className="stream-sources" aria-label="sources">
      {sources.map((source) => (
        <li key={source.n} title={source.preview}>
          [{source.n}] {source.filename ?? 'document'}{shownPage(source.page_number) !== null ? `, p. ${shownPage(source.page_number)}` : ''}
        </li>
      ))}
    </ol>
  );
}
