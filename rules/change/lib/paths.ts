/** JSON paths as change-certification issues name them: `claim.args[1].op` (the document's own keys, no `$`). */
import { indexPath, memberPath } from '../../../src/text/json-path.js';

export const childPath = (parent: string, key: string): string => (parent === '' ? key : memberPath(parent, key));
export const indexAt = (parent: string, index: number): string => indexPath(parent, index);
