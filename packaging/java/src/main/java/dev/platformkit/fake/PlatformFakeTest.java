package dev.platformkit.fake;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @ExtendWith(PlatformFake.class)} in one word: the class's tests may take a {@link FakeNamespace}. */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(PlatformFake.class)
public @interface PlatformFakeTest {}
