import { DefaultFailureConverter } from '@temporalio/common';

/*
 * Loaded by path (DataConverter.failureConverterPath): the SDK also bundles it into the workflow sandbox, so it
 * imports nothing but @temporalio/common. With encodeCommonAttributes, a failure's message and stack trace travel
 * as an encoded payload — sealed by the codec — and the server keeps only "Encoded failure" in plain text.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
