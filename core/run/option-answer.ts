import { RagError } from '../errors';

/*
 * A person answering a run that offers options may type the option's number (issue 14 §9): "2" picks the second
 * option, so the run goes on with the option's text, as if it had been typed. A number that names no option is
 * refused with the list, and nothing is sent. Without options, or when the text is itself one of the options, the
 * text is the answer (a clarification about a year takes "2008").
 */

const OPTION_NUMBER = /^\d{1,3}$/;

/** Whether a text could be an option's number (only then is it worth reading the run's options). */
export const mayNameAnOption = (text: string): boolean => OPTION_NUMBER.test(text.trim());

/** The answer to send: the option a number names, else the text as typed. Throws INVALID_INPUT for a number out of range. */
export function answerForOptions(text: string, options: readonly string[]): string {
  const typed = text.trim();
  if (options.length === 0 || !OPTION_NUMBER.test(typed) || options.includes(typed)) return text;
  const picked = options[Number(typed) - 1];
  if (picked !== undefined && Number(typed) >= 1) return picked;
  const list = options.map((option, i) => `${i + 1}. ${option}`).join('; ');
  throw new RagError('INVALID_INPUT', `option ${typed} does not exist: the run offers ${list}; nothing was sent`);
}
