// What `kspace sync` leaves alone: every path with a part starting with `.` (dotfiles, `.obsidian/`,
// `.trash/`, `.git/`, its own `.kspace/`), and the patterns of `DIR/.kspaceignore`.
//
// `.kspaceignore` takes the common part of the .gitignore syntax: one pattern a line; blank lines
// and `#` comments skipped; `*` any run of characters but `/`, `**` any run including `/`, `?`
// one character; a pattern with a `/` before its end is anchored at the folder's root, one
// without matches a name at any depth; a trailing `/` matches folders only (and all under them).
// Negation (`!`) is not supported: such a line is reported and skipped.

export type Ignore = { (rel: string, isDir: boolean): boolean; skipped: string[] };

function globToRegExp(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') {
        i++;
        out += '(?:.*/)?';
      } else out += '.*';
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

/** The ignore rule of a `.kspaceignore` text (or none). */
export function compileIgnore(text = ''): Ignore {
  const rules: Array<{ re: RegExp; dirOnly: boolean }> = [];
  const skipped: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('!')) {
      skipped.push(line);
      continue;
    }
    const dirOnly = line.endsWith('/');
    let p = dirOnly ? line.slice(0, -1) : line;
    const anchored = p.includes('/');
    if (p.startsWith('/')) p = p.slice(1);
    const body = globToRegExp(p);
    rules.push({ re: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), dirOnly });
  }
  const ignore = ((rel: string, isDir: boolean): boolean => {
    const parts = rel.split('/');
    if (parts.some((s) => s.startsWith('.'))) return true;
    // A path is ignored when it, or a folder above it, matches.
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      const dir = i < parts.length || isDir;
      if (rules.some((r) => (!r.dirOnly || dir) && r.re.test(prefix))) return true;
    }
    return false;
  }) as Ignore;
  ignore.skipped = skipped;
  return ignore;
}
