import { questionSlot, statesSlot } from '../../../core/answer/question-slot';
import { joinWrappedLines } from '../../../core/answer/sentences';

describe('questionSlot', () => {
  test.each([
    ['Which Django releases fix CVE-2024-24680?', 'version'],
    ['What version of Debian is stable?', 'version'],
    ['北极星X1哪个版本开始支持双频？', 'version'],
    ['When was Django 4.2.1 released?', 'date'],
    ['这款产品什么时候上市？', 'date'],
    ['How much does the Zephyr K7 cost?', 'amount'],
    ['星途科技的客服热线是多少？', 'amount'],
    ['北极星X1的续航是多少？', 'amount'],
    ['How do I pair the headset?', null],
    ['What is a Debian package?', null],
    ['为什么会断电？', null],
  ])('%s → %s', (question, slot) => {
    expect(questionSlot(question)).toBe(slot);
  });

  test('statesSlot reads versions, dates and amounts, not any digit for a version', () => {
    expect(statesSlot('version', 'Django 4.2.1 fixes a security issue')).toBe(true);
    expect(statesSlot('version', 'CVE-2023-31047: Potential bypass')).toBe(false);
    expect(statesSlot('date', '*May 3, 2023*')).toBe(true);
    expect(statesSlot('date', '该功能于二〇二四年发布')).toBe(true);
    expect(statesSlot('date', '该功能已经发布')).toBe(false);
    expect(statesSlot('amount', 'The Zephyr K7 ships with blades (CVE-2023-31047).')).toBe(false);
    expect(statesSlot('date', '该功能于三月发布')).toBe(true);
    expect(statesSlot('amount', '客服热线 400-800-1234')).toBe(true);
    expect(statesSlot('amount', '续航约四十五公里')).toBe(true);
    expect(statesSlot('amount', 'The box holds spare blades.')).toBe(false);
  });
});

describe('joinWrappedLines', () => {
  test('a wrap inside a sentence is joined; headings, list items and Chinese lines keep their breaks', () => {
    expect(joinWrappedLines('several bugs in\n4.2.\n\nBugfixes\n========\n\n* Fixed a crash\n  when deferring.')).toBe(
      'several bugs in 4.2.\n\nBugfixes\n========\n\n* Fixed a crash when deferring.',
    );
    expect(joinWrappedLines('北极星 X1 固件说明\n固件 2.3.1 起支持')).toBe('北极星 X1 固件说明\n固件 2.3.1 起支持');
  });
});
