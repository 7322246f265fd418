import { safe } from './format';

// The only way the viewer puts text on the page: elements made with createElement and filled
// with textContent, model text passed through `safe` first. No innerHTML anywhere, no links.

/** An element with classes and (safe) text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined && className !== '') node.className = className;
  if (text !== undefined && text !== '') node.textContent = safe(text);
  return node;
}

/** A text-only span, or nothing for an empty text. */
export function span(className: string, text: string | undefined): HTMLSpanElement | undefined {
  return text === undefined || text === '' ? undefined : el('span', className, text);
}

/** Appends the children that exist. */
export function put(parent: HTMLElement, ...children: Array<Node | undefined>): HTMLElement {
  for (const c of children) if (c !== undefined) parent.append(c);
  return parent;
}

/** Replaces a node's text (model text made safe first). */
export function setText(node: Node, text: string): void {
  node.textContent = safe(text);
}
