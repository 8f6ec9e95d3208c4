/**
 * DesignerBoundary keeps a designer that throws (while loading its code or at run time) from taking the console down
 * with it: it shows the error and a way on — editing the HTML as code — instead of an empty area (Bad input).
 */
import { Component, type ReactNode } from 'react';
import { Alert, Button } from '@mui/material';

interface Props {
  children: ReactNode;
  onEditAsHtml(): void;
  onError(error: Error): void;
}
interface State {
  error?: Error;
}

export class DesignerBoundary extends Component<Props, State> {
  state: State = {};

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error) {
    this.props.onError(error);
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <Alert severity="error" action={<Button onClick={this.props.onEditAsHtml}>Edit HTML instead</Button>}>
        The designer could not start: {this.state.error.message}. The template’s HTML can still be edited as code.
      </Alert>
    );
  }
}
