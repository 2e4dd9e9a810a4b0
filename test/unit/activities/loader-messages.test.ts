import { withoutLinks } from '../../../activities/adapters/loaders/loader';

// Issue 33 §6: a loader's error names the cause, not the library's documentation.
test("a library's pointer to its documentation is left out of the message; a message that is only a link keeps its words", () => {
  expect(withoutLinks("Can't find end of central directory : is this a zip file ? If it is, see https://stuk.github.io/jszip/documentation/howto/read_zip.html")).toBe(
    "Can't find end of central directory: is this a zip file?",
  );
  expect(withoutLinks('Corrupted zip: missing 4 bytes.')).toBe('Corrupted zip: missing 4 bytes.');
  expect(withoutLinks('see https://example.org/help')).toBe('see');
});
