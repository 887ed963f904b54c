/** One problem with one field of the input: `key` names the field, `code` is stable. */
export type Issue = { key: string; code: string; message: string };
