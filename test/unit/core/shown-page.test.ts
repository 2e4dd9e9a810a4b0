import { shownPage } from '../../../core/schemas/page-number';

// Issue 33 §6: chunks keep the spec's 0-based page index; people read pages from 1.
test('a 0-based page index is shown from 1; a page that is not a whole number as it is; none as null', () => {
  expect([0, 4, '0', ' 11 ', 'iv', -1, null, undefined, ''].map(shownPage)).toEqual([1, 5, 1, 12, 'iv', -1, null, null, null]);
});
