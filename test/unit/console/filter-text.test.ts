import { filtersOfText } from '../../../console/src/filter-text';

// issue 44 §2: the console's filter box as the API's filters; the server checks keys and values.
test('key=value items, a,b for one of; an empty box is no filter; an item without "=" is refused', () => {
  expect(filtersOfText('  product=atlas   lang=en,zh ')).toEqual({ product: ['atlas'], lang: ['en', 'zh'] });
  expect(filtersOfText('   ')).toBeUndefined();
  expect(() => filtersOfText('product')).toThrow('filter "product": write key=value (key=a,b for one of several values)');
});
