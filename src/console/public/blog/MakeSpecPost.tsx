/**
 * The Make API-spec post (spec part 1 §2 "The automation-platform spec post embeds an API spec document loaded from
 * /docs/make_integration.yml"): how the Make app connects, then the document itself, rendered by
 * swagger-ui (loaded only here and on the API documentation post).
 */
import { ApiSpec } from './ApiSpec';
import { C, P, Section, To } from './parts';
import { MAKE_SPEC_URL } from './postMeta';

/** MakeSpecPost describes the calls of the Mailwright app for Make and embeds their OpenAPI document. */
export function MakeSpecPost() {
  return (
    <>
      <P>
        This is the reference for the Mailwright app for Make: every call its modules make, what they send and what comes back. You do not need it to use the
        app, since each module’s fields are labelled in Make, but it is what to read when you map data between modules or wonder why a run stopped. For what the
        integration can do for you, see <To to="/blog/make-integration">Automate your email with Make</To>.
      </P>
      <Section title="The connection">
        <P>
          The app authenticates with your project’s integration key, found on <To to="/account/api">Integrations</To> in the console. Paste it into the
          Mailwright connection in Make; the app sends it in the <C>x-api-key</C> header of every call. The integration key is not the API key used for direct
          API calls, which is on <To to="/account/settings">Settings</To>.
        </P>
      </Section>
      <Section title="The modules">
        <P>
          Each module is one call to a gateway of your account: add or update contacts, save a template, save a sender persona, create a segment, add contacts
          to a segment, schedule an email blast and post events. A module’s batch is checked before anything is written, and a refused one answers with{' '}
          <C>{'{"errors": [...]}'}</C>, each message naming the field, which Make shows in the scenario’s log. Events are the exception: good events are stored
          and the failed ones listed. A template must contain an unsubscribe link, <C>{'{{unsubscribe_link}}'}</C>.
        </P>
      </Section>
      <ApiSpec url={MAKE_SPEC_URL} title="The Make app’s calls" />
    </>
  );
}
