/**
 * Element references for `browser_interact`, assigned in the page by `browser_snapshot`: every
 * visible interactive element (links, buttons, form fields, ARIA widgets, focusable elements)
 * gets a `data-svc-ref="e<n>"` attribute, kept for as long as the element lives, so a reference
 * stays valid across snapshots of one document; a new document starts again at e1.
 *
 * The page can read and rewrite these attributes; it can only confuse its own interaction (a
 * reference that matches two elements is refused by Playwright's strict locator).
 */
export type PageElement = { ref: string; role: string; name: string };

export const REF_ATTRIBUTE = 'data-svc-ref';
export const REF_PATTERN = /^e[1-9]\d{0,5}$/;

/** Runs in the page (main world): assigns references and describes up to `max` elements. */
export function assignRefsScript(max: number): string {
  return `(${ASSIGN_REFS})(${JSON.stringify(REF_ATTRIBUTE)}, ${Math.trunc(max)})`;
}

// Plain JavaScript: this file is type-checked without the DOM library.
const ASSIGN_REFS = `(attribute, max) => {
  const selector = [
    'a[href]', 'area[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary',
    '[contenteditable=""]', '[contenteditable=true]', '[tabindex]:not([tabindex="-1"])',
    ...['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option',
      'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem'].map((role) => '[role=' + role + ']'),
  ].join(',');
  const clean = (text) => (text || '').replace(/\\s+/g, ' ').trim().slice(0, 100);
  const inputRoles = { button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox' };
  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\\s+/)[0];
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a' || tag === 'area') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'textarea' || el.isContentEditable) return 'textbox';
    if (tag === 'input') return inputRoles[(el.getAttribute('type') || 'text').toLowerCase()] || 'textbox';
    return 'generic';
  };
  const nameOf = (el) => {
    const label = el.getAttribute('aria-label');
    if (clean(label)) return clean(label);
    const labelledBy = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean);
    if (labelledBy.length) return clean(labelledBy.map((node) => node.textContent).join(' '));
    if (el.labels && el.labels.length) return clean(Array.from(el.labels).map((node) => node.textContent).join(' '));
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(type)) return clean(el.value || type);
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name'));
    return clean(el.innerText || el.textContent || el.getAttribute('title') || el.getAttribute('alt'));
  };
  const root = document.documentElement;
  let next = Number(root.getAttribute(attribute + '-next')) || 1;
  const seen = new Set();
  const elements = [];
  for (const el of document.querySelectorAll(selector)) {
    if (elements.length >= max) break;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    let ref = el.getAttribute(attribute);
    if (!ref || !/^e[1-9][0-9]{0,5}$/.test(ref) || seen.has(ref)) {
      do ref = 'e' + next++;
      while (seen.has(ref) || document.querySelector('[' + attribute + '="' + ref + '"]'));
      el.setAttribute(attribute, ref);
    }
    seen.add(ref);
    elements.push({ ref, role: roleOf(el), name: nameOf(el) });
  }
  root.setAttribute(attribute + '-next', String(next));
  return elements;
}`;
