/** Browser files as the API's attachment items: `{name, contentType, dataBase64}`. */
export async function toAttachments(files: FileList | null): Promise<Array<{ name: string; contentType: string; dataBase64: string }>> {
  return Promise.all(
    [...(files ?? [])].map(async (file) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = '';
      for (let offset = 0; offset < bytes.length; offset += 0x8000) binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
      return { name: file.name, contentType: file.type || 'application/octet-stream', dataBase64: btoa(binary) };
    }),
  );
}
