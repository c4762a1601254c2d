// Sanitised HTML with sanitize-html: structural and text tags with their essential attributes only
// (<span> goes too: it only ever carried classes and styles).
import sanitizeHtml from 'sanitize-html';

const KEPT_EMPTY = new Set(['img', 'br', 'hr', 'td', 'th', 'tr']);

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags.filter((tag) => tag !== 'span'), 'img'],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  // Wrappers left empty by the removed markup say nothing; table cells keep their place in the row.
  exclusiveFilter: (frame) =>
    !frame.text.trim() && frame.mediaChildren.length === 0 && !KEPT_EMPTY.has(frame.tag),
};

export function sanitize(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}
