/**
 * How the two-part set splits a paragraph (bench/open-sets/two-part.ts, issue 42 §7): two questions whose answers
 * occur once each, in different sentences; the cut after the earlier answer's sentence, so each part answers one.
 * A made-up paragraph, so no CMRC data is needed.
 */
import { twoPartOf } from '../../../bench/open-sets/two-part';

const article = (context: string, qas: Array<[string, string[]]>) => ({
  id: 'T1',
  title: '星途站',
  context,
  questions: qas.map(([question, answers], i) => ({ id: `T1_Q${i}`, question, answers })),
});

describe('two-part questions from one paragraph', () => {
  test('the paragraph is cut after the earlier answer; each part holds one answer only', () => {
    const two = twoPartOf(
      article('星途站位于江南市。车站于2008年5月12日启用。站房面积1.7万平方米。', [
        ['星途站什么时候启用？', ['2008年5月12日']],
        ['星途站位于哪个城市？', ['江南市']],
      ]),
    );
    expect(two).toMatchObject({ a1: '2008年5月12日', a2: '江南市', parts: ['星途站位于江南市。', '车站于2008年5月12日启用。站房面积1.7万平方米。'] });
  });

  test('answers in one sentence, or an answer that occurs twice, make no pair', () => {
    expect(twoPartOf(article('星途站位于江南市，2008年启用。', [['位于哪里？', ['江南市']], ['哪年启用？', ['2008年']]]))).toBeNull();
    expect(twoPartOf(article('江南市有星途站。星途站属于江南市。', [['在哪？', ['江南市']], ['属于？', ['星途站属于江南市']]]))).toBeNull();
  });

  test('a question without an answer found once is skipped for the next one', () => {
    const two = twoPartOf(
      article('星途站位于江南市。江南市很大。车站于2008年启用。', [
        ['星途站位于哪个城市？', ['江南市']],
        ['星途站哪年启用？', ['2008年']],
        ['星途站有多大？', ['1.7万平方米']],
      ]),
    );
    expect(two).toBeNull();
    const next = twoPartOf(
      article('星途站位于北江市。车站于2008年启用。面积1.7万平方米。', [
        ['星途站多大？', ['5万平方米']],
        ['星途站位于哪个城市？', ['北江市']],
        ['星途站有多大？', ['1.7万平方米']],
      ]),
    );
    expect(next).toMatchObject({ a1: '北江市', a2: '1.7万平方米', parts: ['星途站位于北江市。', '车站于2008年启用。面积1.7万平方米。'] });
  });
});
