/**
 * Every RAG model call sends exactly one user message and no system message (spec §7), so a prompt builder returns
 * one of these, not a message list.
 */
export type UserMessage = { role: 'user'; content: string };

/**
 * Fills `{name}` placeholders of a prompt template in one pass over the template, so a question or context that
 * itself contains `{context}` is inserted verbatim and never re-expanded.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): UserMessage {
  const content = template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : placeholder,
  );
  return { role: 'user', content };
}
