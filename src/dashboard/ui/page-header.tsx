import type { ComponentChildren } from "preact";

export function PageHeader({ title, description, children }: { title: string; description?: string; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p class="muted">{description}</p>}
      </div>
      {children && <div class="page-actions">{children}</div>}
    </div>
  );
}
