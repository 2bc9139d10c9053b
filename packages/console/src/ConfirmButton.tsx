import { Button, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A row's button for what cannot be undone (delete, revoke): it acts only once the user says yes
 * to `question` in the browser's dialog. `label` names the button with the row it acts on.
 */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  size = 'xs',
  color,
  loading,
  children,
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  size?: ButtonProps['size'];
  color?: ButtonProps['color'];
  loading?: boolean;
  children: ReactNode;
}) {
  return (
    <Button
      size={size}
      color={color}
      variant="default"
      aria-label={label}
      loading={loading}
      onClick={() => {
        if (window.confirm(question)) onConfirm();
      }}
    >
      {children}
    </Button>
  );
}
