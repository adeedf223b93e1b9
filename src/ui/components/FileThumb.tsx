import { useFileUrl } from '../media/files';

/**
 * A file's thumbnail (issue 16): an image's small copy, made in a file worker from the compressed image (the page
 * never decodes the original; the object URL is shared and revoked when nothing shows it: ../media/files.ts), or
 * the file type as a badge for a document and an image still being prepared.
 */
export function FileThumb({ fileId, type, fileType, className = 'attachment-thumb' }: { fileId: number | null | undefined; type: 'image' | 'file'; fileType: string; className?: string }) {
  const url = useFileUrl(fileId ?? undefined, fileId !== null && fileId !== undefined);
  if (type === 'image' && url) return <img className={className} src={url} alt="" decoding="async" />;
  return (
    <span className={`${className} file-badge`} aria-hidden="true" data-type={type}>
      {(fileType || (type === 'image' ? 'img' : 'file')).slice(0, 4).toUpperCase()}
    </span>
  );
}
