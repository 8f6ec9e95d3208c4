/**
 * The operators' back-office at /operator: for the people who run the service, not for customers. Its
 * own sign-in (/operator/login, the mw_operator cookie), then companies and projects (search by company, project or
 * admin email), one project with its activation request and the actions (activate / return to the sandbox, suspend /
 * resume sending, verify a sender persona, reset an admin's password), the contact-form messages and the audit log.
 * Loaded only when /operator is opened; it never reads or writes the customer session.
 */

import { Route, Routes } from 'react-router-dom';
import { OperatorLogin } from './LoginPage';
import { Signed } from './Frame';
import { OperatorHome } from './HomePage';
import { ProjectPage } from './ProjectPage';

/** OperatorApp routes /operator/*: sign-in, the start page and one project. */
export function OperatorApp() {
  return (
    <Routes>
      <Route path="login" element={<OperatorLogin />} />
      <Route
        path="projects/:projectId"
        element={
          <Signed>
            <ProjectPage />
          </Signed>
        }
      />
      <Route
        path="*"
        element={
          <Signed>
            <OperatorHome />
          </Signed>
        }
      />
    </Routes>
  );
}
