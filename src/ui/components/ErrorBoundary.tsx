/**
 * An error boundary: when what it wraps throws while rendering, it shows `fallback` instead, and the rest of the
 * app goes on (React unmounts the whole page on an error no boundary catches, which left a hostile reply's
 * conversation blank on every visit). A new `resetKey` (the message's new text, another page) tries again.
 */
import { Component, type ReactNode } from 'react';

interface Props {
  fallback: ReactNode;
  resetKey?: unknown;
  children: ReactNode;
}

interface State {
  failed: boolean;
  resetKey: unknown;
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.resetKey ? { failed: false, resetKey: props.resetKey } : null;
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
