import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';

/** How a test's person answers a form elicitation: the form's content, or null to decline. */
export type Elicit = (request: ElicitRequest) => Record<string, string> | null | Promise<Record<string, string> | null>;

/** The SDK's client; with `elicit`, it declares form elicitation and answers each request so. */
export function newMcpClient(name: string, elicit?: Elicit): Client {
  const client = new Client({ name, version: '1.0.0' }, elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const content = await elicit(request);
      return content === null ? { action: 'decline' } : { action: 'accept', content };
    });
  }
  return client;
}
