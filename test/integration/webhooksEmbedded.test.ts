import { describeWebhooks, WEBHOOK_DATABASES } from "./webhooksSuite.ts"

describeWebhooks(WEBHOOK_DATABASES.embedded)
