// The id of a rendered heading: what `#fragment` links and embeds of `Note#Heading` point at.

/** A heading's id: `h-` + its text, lowercased, spaces to `-`, punctuation dropped. */
export function headingId(text: string): string {
  const slug = text
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
  return `h-${slug || 'section'}`;
}
