import { placeMissingMarkers } from '../../../core/answer/place-markers';
import { verifyAnswer } from '../../../core/answer/verify-answer';

const manual = '# Aurora X2 路由器用户手册\n\nAurora X2 路由器提供 2 年保修，保修期自购买之日起计算。Aurora X2 路由器的产品价格为 399 元。';

describe('placeMissingMarkers', () => {
  test('the local model\'s answer without a marker: its verbatim citation is placed after the sentence it backs, and verifies', () => {
    const draft = { answer: 'Aurora X2 路由器的保修期是 2 年。', citations: [{ marker: 1, doc_index: 1, quote: 'Aurora X2 路由器提供 2 年保修，保修期自购买之日起计算。' }] };
    expect(verifyAnswer(draft, [manual]).status).toBe('unverified');
    const placed = placeMissingMarkers(draft, [manual]);
    expect(placed.answer).toBe('Aurora X2 路由器的保修期是 2 年[1]。');
    expect(verifyAnswer(placed, [manual]).status).toBe('verified');
  });

  test('each citation goes to the sentence it says; a sentence no quote backs stays uncited', () => {
    const leaflet = 'The Zephyr K7 costs 89 euros. It comes with a 2-year warranty.';
    const draft = {
      answer: 'The Zephyr K7 costs 89 euros. The warranty lasts 2 years. It is the finest blender ever made.',
      citations: [
        { marker: 1, doc_index: 1, quote: 'It comes with a 2-year warranty' },
        { marker: 2, doc_index: 1, quote: 'The Zephyr K7 costs 89 euros' },
      ],
    };
    const placed = placeMissingMarkers(draft, [leaflet]);
    expect(placed.answer).toBe('The Zephyr K7 costs 89 euros[2]. The warranty lasts 2 years[1]. It is the finest blender ever made.');
    expect(verifyAnswer(placed, [leaflet]).status).toBe('partially_verified');
  });

  test('a quote not in its document, a text that has markers, or no overlap: the draft as it was', () => {
    const invented = { answer: 'Aurora X2 路由器的保修期是 2 年。', citations: [{ marker: 1, doc_index: 1, quote: 'Aurora X2 保修 5 年' }] };
    expect(placeMissingMarkers(invented, [manual])).toBe(invented);
    const marked = { answer: '保修 2 年[1]。', citations: [{ marker: 1, doc_index: 1, quote: 'Aurora X2 路由器提供 2 年保修' }] };
    expect(placeMissingMarkers(marked, [manual])).toBe(marked);
    const unrelated = { answer: '请联系客服。', citations: [{ marker: 1, doc_index: 1, quote: 'Aurora X2 路由器的产品价格为 399 元' }] };
    expect(placeMissingMarkers(unrelated, [manual])).toBe(unrelated);
  });
});
