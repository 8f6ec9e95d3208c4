# Mailwright's image: the console built by Vite into dist/console, the server run from its TypeScript sources by tsx
# (a dependency, not a devDependency). One image for every role; docker-compose.yml runs it as the HTTP processes
# (WORKERS=off), the worker processes (WORKERS=on) and the one-shot `migrate` (scripts/migrate.ts).

# Build: every dependency (Vite and its plugins are devDependencies), then the console.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# Run: dependencies only (nothing the server or the workers import is a devDependency), the sources and the built
# console. With PostgreSQL (DATABASE_URL) and S3 (STORAGE_URL) nothing is written to disk; DATA_DIR is there for a
# single container on PGlite (mount a volume at /data).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production SCARF_ANALYTICS=false DATA_DIR=/data PORT=8080
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# One process, so `docker stop`'s SIGTERM reaches main.ts's graceful stop: `npx tsx …` runs npm → sh → tsx → node,
# and a SIGTERM to npm ends npm alone, leaving the server to be killed when the container ends.
CMD ["node", "--import", "tsx", "src/server/main.ts"]
