import type { FileToUpload, ResolvedAnswer } from '@quarry/hosted-form-apply';
import { FileAnswer, type Question } from '@quarry/contracts';
import { readAllCapped } from './read-capped.ts';
import type { PlannedAnswer } from './answer-validation.ts';
import type { RunPorts } from './applications-ports.ts';
import { sniffFileType, typeFitsAccept } from './file-types.ts';

export class FileProblem extends Error {
  readonly code: 'FileFailedToUpload' | 'FileTypeNotSupported';
  constructor(code: 'FileFailedToUpload' | 'FileTypeNotSupported', message: string) {
    super(message);
    this.name = 'FileProblem';
    this.code = code;
  }
}

/** Every question by id, conditional questions and parts included. */
function indexQuestions(questions: Question[], into = new Map<string, Question>()): Map<string, Question> {
  for (const question of questions) {
    into.set(question.id, question);
    for (const option of question.options ?? []) {
      if ('conditionalQuestions' in option) indexQuestions(option.conditionalQuestions, into);
      else indexQuestions([option], into);
    }
  }
  return into;
}

/**
 * Replaces every File answer (at any depth) by its bytes: fetched through the SSRF guard with the
 * client's headers, capped at `maxFileBytes`, its type told from the bytes and checked against the
 * question's `accept`. Kept in memory only: a candidate's files never touch the disk.
 */
export async function resolveFiles(
  ports: Pick<RunPorts, 'fetchFile' | 'maxFileBytes' | 'fileTimeoutMs'>,
  questions: Question[],
  planned: PlannedAnswer[],
  signal: AbortSignal,
): Promise<ResolvedAnswer[]> {
  const byId = indexQuestions(questions);
  const fetched = new Map<string, Promise<Buffer>>();
  const fetchOnce = (file: FileAnswer) => {
    const key = JSON.stringify([file.url, file.headers ?? {}]);
    let bytes = fetched.get(key);
    if (!bytes) {
      bytes = download(ports, file, signal);
      fetched.set(key, bytes);
    }
    return bytes;
  };
  const resolve = async (answer: PlannedAnswer): Promise<ResolvedAnswer> => {
    const question = byId.get(answer.id);
    const file = FileAnswer.safeParse(answer.value);
    if (question?.inputType === 'File' && file.success) {
      const bytes = await fetchOnce(file.data);
      const type = sniffFileType(bytes);
      if (!type)
        throw new FileProblem(
          'FileTypeNotSupported',
          `${answer.id}: "${file.data.filename}" is not a PDF, Word, OpenDocument, RTF, text, PNG or JPEG file`,
        );
      if (question.accept && question.accept.length > 0 && !typeFitsAccept(type, question.accept)) {
        throw new FileProblem(
          'FileTypeNotSupported',
          `${answer.id}: "${file.data.filename}" is ${type.extension.slice(1).toUpperCase()}, not one of ${question.accept.join(', ')}`,
        );
      }
      const upload: FileToUpload = { type: 'File', filename: file.data.filename, contentType: type.contentType, bytes };
      return { id: answer.id, value: upload };
    }
    if (question?.inputType === 'ArrayOfObjects' && Array.isArray(answer.value)) {
      return {
        id: answer.id,
        value: await Promise.all((answer.value as PlannedAnswer[][]).map((instance) => Promise.all(instance.map(resolve)))),
      };
    }
    if (question?.inputType === 'FragmentedQuestion' && Array.isArray(answer.value)) {
      return { id: answer.id, value: await Promise.all((answer.value as PlannedAnswer[]).map(resolve)) };
    }
    return answer;
  };
  return Promise.all(planned.map(resolve));
}

async function download(
  ports: Pick<RunPorts, 'fetchFile' | 'maxFileBytes' | 'fileTimeoutMs'>,
  file: FileAnswer,
  signal: AbortSignal,
): Promise<Buffer> {
  const failed = (why: string) => new FileProblem('FileFailedToUpload', `"${file.filename}" could not be fetched: ${why}`);
  let response;
  try {
    response = await ports.fetchFile(file.url, {
      headers: file.headers ?? {},
      maxBytes: ports.maxFileBytes,
      timeoutMs: ports.fileTimeoutMs ?? 60_000,
      signal,
    });
  } catch (error) {
    signal.throwIfAborted();
    throw failed((error as Error).message);
  }
  if (response.status !== 200) {
    response.body.resume();
    throw failed(`the server answered HTTP ${response.status}`);
  }
  try {
    const bytes = await readAllCapped(response.body);
    if (bytes.length === 0) throw failed('the file is empty');
    return bytes;
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof FileProblem) throw error;
    throw failed((error as Error).message);
  }
}
