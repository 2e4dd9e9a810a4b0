/**
 * The pure transformations of the news-like open sets (issue 42 §7; bench/open-sets/news-transform.ts): numbers and
 * dates written another way, the sentence rotation, the two-part joining template and the absence check of
 * unanswerable questions. Expected values are worked by hand from the rules in the module's header.
 */
import { parseReuters } from '../../../bench/open-sets/news-en';
import {
  chineseSentences,
  groupThousands,
  joinQuestions,
  occurs,
  presentProbes,
  rewriteChineseNumbers,
  rewriteEnglishNumbers,
  rotate,
  scaleDecimal,
} from '../../../bench/open-sets/news-transform';

describe('Chinese numbers and dates, written exactly another way or rounded', () => {
  test.each([
    ['交付1313851辆', '交付1,313,851辆', '交付131.4万辆'],
    ['约131万辆', '约1,310,000辆', '约131万辆'],
    ['投资11.42亿元', '投资1,142,000,000元', '投资11.4亿元'],
    ['4亿5000万加元', '450,000,000加元', '4.5亿加元'],
    ['4.81万平方米', '48,100平方米', '4.8万平方米'],
    ['46,600m²和1,000米', '46600m²和1000米', '4.7万m²和1000米'],
    ['13011人（2000年）', '13,011人（2000年）', '1.3万人（2000年）'],
  ])('%s → %s (exact) / %s (rounded)', (text, exact, rounded) => {
    expect(rewriteChineseNumbers(text, 'exact')).toBe(exact);
    expect(rewriteChineseNumbers(text, 'rounded')).toBe(rounded);
  });

  test('a full date becomes ISO (exact) or its month (rounded), but not inside a range', () => {
    expect(rewriteChineseNumbers('2008年5月12日发生地震', 'exact')).toBe('2008-05-12发生地震');
    expect(rewriteChineseNumbers('2008年5月12日发生地震', 'rounded')).toBe('2008年5月发生地震');
    expect(rewriteChineseNumbers('1983年5月20日到1984年1月27日', 'exact')).toBe('1983-05-20到1984-01-27');
    expect(rewriteChineseNumbers('1983年5月20日到1984年1月27日', 'rounded')).toBe('1983年5月20日到1984年1月27日');
  });

  test('years, codes and small numbers are left as they are', () => {
    for (const text of ['2008年', 'G12345次列车', '第151位', '1988年竣工，3.14']) {
      expect(rewriteChineseNumbers(text, 'exact')).toBe(text);
      expect(rewriteChineseNumbers(text, 'rounded')).toBe(text);
    }
  });

  test('decimal scaling moves the point without floating point', () => {
    expect(scaleDecimal('11.42', 8)).toBe('1142000000');
    expect(scaleDecimal('0.5', 4)).toBe('5000');
    expect(groupThousands('1313851')).toBe('1,313,851');
  });
});

describe('Reuters numbers, written exactly another way or rounded', () => {
  test.each([
    ['cut prices by 1.50 dlrs a barrel to 16.00 dlrs', 'cut prices by $1.50 a barrel to $16.00', 'cut prices by 1.5 dlrs a barrel to 16 dlrs'],
    ['6,036 mln dlrs', '$6,036 million', '6.04 billion dlrs'],
    ['88 mln dlrs, 15.8 mln bpd', '$88 million, 15.8 million bpd', '88 mln dlrs, 15.8 mln bpd'],
    ['64 Canadian cts a barrel, 22.26 Canadian dlrs', '64 Canadian cents a barrel, C$22.26', '64 Canadian cts a barrel, 22.26 Canadian dlrs'],
    ['3,677,272 shares, 258,591 shares, 948,000 bpd', '3,677,272 shares, 258,591 shares, 948,000 bpd', '3.68 mln shares, 259,000 shares, 948,000 bpd'],
    ['down 10.8 pct', 'down 10.8%', 'down 10.8 percent'],
    ['5.472 billion riyals', '5.472 billion riyals', '5.5 billion riyals'],
    ['NEW YORK, FEB 26 - effective Jan 12', 'NEW YORK, February 26 - effective January 12', 'NEW YORK, FEB 26 - effective Jan 12'],
  ])('%s → %s (exact) / %s (rounded)', (text, exact, rounded) => {
    expect(rewriteEnglishNumbers(text, 'exact')).toBe(exact);
    expect(rewriteEnglishNumbers(text, 'rounded')).toBe(rounded);
  });

  test('fractions, quotes with a slash and ranges are not numbers to rewrite', () => {
    for (const text of ['6-1/4, 5-3/4 pct', 'at 3.7495/98 to the dollar', '15-18 dlrs a barrel', 'up 11-5/8 to 29-3/8']) {
      expect(rewriteEnglishNumbers(text, 'exact')).toBe(text);
      expect(rewriteEnglishNumbers(text, 'rounded')).toBe(text);
    }
  });
});

describe('reordering', () => {
  test('sentences are rotated by one either way; a last sentence without its stop is kept', () => {
    const sentences = chineseSentences('甲。乙！丙');
    expect(sentences).toEqual(['甲。', '乙！', '丙']);
    expect(rotate(sentences, 1).join('')).toBe('乙！丙甲。');
    expect(rotate(sentences, -1).join('')).toBe('丙甲。乙！');
    expect(rotate(['only'], 1)).toEqual(['only']);
  });
});

describe('the two-part joining template "<q1>？另外，<q2>？"', () => {
  test('the subject both questions open with is dropped from the second', () => {
    expect(joinQuestions('龙烟铁路什么时候开通运营？', '龙烟铁路项目工程投资总额约为多少？', '龙烟铁路')).toBe('龙烟铁路什么时候开通运营？另外，项目工程投资总额约为多少？');
    expect(joinQuestions('丘姓在《百家姓》里排多少位', '丘姓的人口大约是多少？', '丘姓')).toBe('丘姓在《百家姓》里排多少位？另外，人口大约是多少？');
  });
  test('otherwise the questions are joined as they are, each with one question mark', () => {
    expect(joinQuestions('他毕业于什么学校?', '1989年拍摄了哪部喜剧。', '李婉华')).toBe('他毕业于什么学校？另外，1989年拍摄了哪部喜剧？');
  });
});

describe('the absence check of unanswerable questions', () => {
  const documents = [{ text: '# MARATHON\n\nOne company cut its price to 16.50 dlrs.\n\nStanwell was bought for undisclosed terms. The unit had sales of 4.5 mln dlrs.' }, { text: '交付1,313,851辆。' }];
  test('one string must occur in no document; Latin ones from the start of a word, case-blind', () => {
    expect(presentProbes([['16.50 dlrs'], ['marathon'], ['NECO'], ['1,313,851辆'], ['1313851辆']], documents)).toEqual(['16.50 dlrs', 'marathon', '1,313,851辆']);
    expect(occurs('Argentin', 'Argentine crude output')).toBe(true);
    expect(occurs('NECO', 'one company')).toBe(false);
  });
  test('several strings must not occur together in one sentence', () => {
    expect(presentProbes([['Stanwell', 'dlrs']], documents)).toEqual([]);
    expect(presentProbes([['unit', 'dlrs']], documents)).toEqual(['unit + dlrs']);
  });
});

describe('Reuters stories as tm ships them', () => {
  test('headline, dateline, body paragraphs at indented lines, no sign-off', () => {
    const xml = '<REUTERS NEWID="127"><TEXT><TITLE>DIAMOND SHAMROCK CUTS CRUDE PRICES</TITLE><DATELINE>NEW YORK, FEB 26 -</DATELINE><BODY>Diamond said that\neffective today it cut prices.\n    The reduction brings &quot;WTI&quot; to 16.00 dlrs.\n Reuter</BODY></TEXT></REUTERS>';
    expect(parseReuters('crude', xml)).toEqual({
      id: 'crude-127',
      title: 'DIAMOND SHAMROCK CUTS CRUDE PRICES',
      dateline: 'NEW YORK, FEB 26 -',
      paragraphs: ['Diamond said that effective today it cut prices.', 'The reduction brings "WTI" to 16.00 dlrs.'],
    });
  });
});
