// The single executable loads the addon itself and hands over the loaded module (see sea-main).
let nativeBinding: object | undefined;
let nativeFile: string | undefined;
/** `file`: where the addon was loaded from, for the helper thread to load it too (helper/thread.ts). */
export function setNativeBinding(binding: object, file?: string): void {
  nativeBinding = binding;
  nativeFile = file;
}

export function nativeAddonFile(): string | undefined {
  return nativeFile;
}

export function nativeBindingOption(): { nativeBinding?: never } {
  return nativeBinding ? { nativeBinding: nativeBinding as never } : {};
}
