// Inline SVG icons (no icon font, no request elsewhere). Decorative: hidden from assistive tech.
const PATHS: Record<string, string> = {
  logo: 'M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM16.5 13v7M13 16.5h7',
  search: 'M10.5 4a6.5 6.5 0 1 0 4.03 11.6l4.43 4.43 1.06-1.06-4.43-4.43A6.5 6.5 0 0 0 10.5 4zm0 1.5a5 5 0 1 1 0 10 5 5 0 0 1 0-10z',
  plus: 'M12 5v14M5 12h14',
  page: 'M7 3h7l4 4v14H7zM14 3v4h4',
  folder: 'M3 6h6l2 2h10v11H3z',
  edit: 'M4 20h4L19 9l-4-4L4 16zM14 6l4 4',
  history: 'M4 12a8 8 0 1 0 2.3-5.6M4 4v4h4M12 8v4l3 2',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  broken: 'M10 14l-1 1a4 4 0 0 1-5.7-5.7l1-1M14 10l1-1a4 4 0 0 1 5.7 5.7l-1 1M8 3v3M3 8h3M16 21v-3M21 16h-3',
  table: 'M3 5h18v14H3zM3 10h18M3 15h18M9 5v14',
  lock: 'M6 11h12v9H6zM8 11V8a4 4 0 0 1 8 0v3',
  grid: 'M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z',
  chevron: 'M9 6l6 6-6 6',
  star: 'M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8-5.2-2.7-5.2 2.7 1-5.8-4.3-4.1 5.9-.9z',
  'star-filled': 'M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8-5.2-2.7-5.2 2.7 1-5.8-4.3-4.1 5.9-.9z',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0',
};

const FILLED = new Set(['search', 'star-filled']);

export function Icon({ name }: { name: string }) {
  const filled = FILLED.has(name);
  return (
    <svg
      class="icon"
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
      fill={filled ? 'currentColor' : 'none'}
      stroke={filled ? 'none' : 'currentColor'}
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      <path d={PATHS[name] ?? ''} />
    </svg>
  );
}
