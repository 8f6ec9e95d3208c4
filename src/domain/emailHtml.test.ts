/** What is sent of a template's HTML: active content stripped, the text part generated (Bad input). */
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../tests/helpers/fixtures.ts';
import { stripActiveContent, textFromHtml } from './emailHtml';

describe('stripActiveContent', () => {
  it('removes script elements with their content, wherever and however written', () => {
    expect(stripActiveContent('<p>a</p><script>alert(1)</script><p>b</p>')).toBe('<p>a</p><p>b</p>');
    expect(stripActiveContent('<div><SCRIPT type="text/javascript">var x = "</div>";</SCRIPT>ok</div>')).toBe('<div>ok</div>');
    expect(stripActiveContent('<p>a</p><script src="https://evil.example/x.js"></script>')).toBe('<p>a</p>');
    expect(stripActiveContent('<p>a</p><script>never closed')).toBe('<p>a</p>');
  });

  it('removes event handlers and script URLs, keeping the other attributes and Handlebars variables', () => {
    expect(stripActiveContent('<a href="{{unsubscribe_link}}" onclick="steal()" style="color:red">Unsubscribe</a>')).toBe(
      '<a href="{{unsubscribe_link}}" style="color:red">Unsubscribe</a>',
    );
    expect(stripActiveContent('<img src="x.png" onerror="alert(1)" alt="{{user.first_name}}"/>')).toBe('<img src="x.png" alt="{{user.first_name}}" />');
    expect(stripActiveContent('<a href=" JavaScript:alert(1)">x</a><a href="https://ok.example/?a=1&amp;b=2">y</a>')).toBe(
      '<a>x</a><a href="https://ok.example/?a=1&amp;b=2">y</a>',
    );
    expect(stripActiveContent('<body ONLOAD="x()" bgcolor="#fff">')).toBe('<body bgcolor="#fff">');
  });

  it('keeps everything else byte for byte: doctype, comments (Outlook conditionals), odd quoting, broken markup', () => {
    const fixture = readFixture('email-templates/leemunroe/email-inlined.html');
    expect(stripActiveContent(fixture)).toBe(fixture);
    const odd = `<!DOCTYPE html><!--[if mso]><table><tr><td><![endif]--><td class=x width='600'>{{{user.json.html}}}<p>unclosed <b>bold</td>`;
    expect(stripActiveContent(odd)).toBe(odd);
  });
});

describe('textFromHtml', () => {
  it('writes paragraphs, links and variables as text, without images and without upper-casing, wrapped at 78', () => {
    const text = textFromHtml(`<html><head><style>p{color:red}</style></head><body><h1>Hi {{user.first_name}}</h1>
      <p>Your plan: {{user.json.plan}}.<br>Thanks.</p><img src="logo.png" alt="Logo">
      <p><a href="https://shop.example/sale">See the sale</a> or <a href="{{unsubscribe_link}}">unsubscribe</a>.</p></body></html>`);
    expect(text).toBe(
      'Hi {{user.first_name}}\n\nYour plan: {{user.json.plan}}.\nThanks.\n\nSee the sale [https://shop.example/sale] or unsubscribe\n[{{unsubscribe_link}}].',
    );
  });
});
