import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A group of navigation links behind one button, so the header stays one line at 1440 px with
 * every view in reach. The list is a popover, as the containers' row menus are: the browser closes
 * it on Escape or a click elsewhere and gives focus back to the button; each navigation closes it
 * too. On a phone the menu lists its links inline (styles.css) and the button is hidden.
 */
export function NavGroup({
  label,
  here,
  current,
  children,
}: {
  label: string;
  /** The page shown: the list closes when it changes. */
  here: string;
  /** Whether that page is one of the group's: its button is underlined like a current link. */
  current: boolean;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const id = `nav-group-${label.toLowerCase()}`;
  useEffect(() => {
    if (list.current?.matches(':popover-open')) list.current.hidePopover();
  }, [here]);
  return (
    <span class="nav-group">
      <button type="button" class={current ? 'nav-group-button current' : 'nav-group-button'} popovertarget={id}>
        {label}
      </button>
      {/* A link followed closes the list at once; the effect above covers Back and Forward. */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: links are followed with Enter, which fires click */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: one delegated handler for the group's links */}
      <div
        ref={list}
        id={id}
        popover="auto"
        class="nav-group-links"
        onClick={(event) => {
          if ((event.target as Element).closest('a') && list.current?.matches(':popover-open'))
            list.current.hidePopover();
        }}
      >
        {children}
      </div>
    </span>
  );
}
