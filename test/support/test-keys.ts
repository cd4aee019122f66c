/** The ring of the fixed test keys every workerd of the tests is given (scripts/lib/test-secrets-keys.ts). */
import { TEST_SECRETS_KEYS } from "../../scripts/lib/test-secrets-keys";
import { KeyRing } from "../../src/secrets/key-ring";

export const testKeys = KeyRing.parse(TEST_SECRETS_KEYS);
